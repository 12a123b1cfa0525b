export * from './errors.js';
export * from './events.js';
export * from './framing.js';
export * from './methods.js';
export * from './results.js';
export * from './envelope.js';
export * from './messages.js';
