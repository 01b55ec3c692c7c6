/** Option parsers shared by subcommands: they turn bad values into usage errors (exit 2) naming the option. */
import { InvalidArgumentError } from 'commander';

export function positiveInt(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${name} must be a whole number of at least 1.`);
    return n;
  };
}

export function nonNegativeInt(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${name} must be a whole number.`);
    return n;
  };
}

export function positiveNumber(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${name} must be a positive number.`);
    return n;
  };
}

export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function oneOf<T extends string>(name: string, allowed: readonly T[]) {
  return (value: string): T => {
    if (!allowed.includes(value as T)) throw new InvalidArgumentError(`${name} must be one of ${allowed.join(', ')}.`);
    return value as T;
  };
}

export function numberIn(name: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max)
      throw new InvalidArgumentError(`${name} must be a number from ${min} to ${max}.`);
    return n;
  };
}
