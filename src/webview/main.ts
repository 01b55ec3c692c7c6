/** The chat panel's browser bundle. */
export {};
