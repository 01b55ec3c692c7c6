/** The coverage reward server (`chorus serve`): an HTTP adapter over the engine. */
export { startServe, type RunningServe } from './http';
export { DEFAULT_PORT, isLoopback, type ServeOptions } from './options';
