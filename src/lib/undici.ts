/**
 * The parts of undici the controller uses, each loaded from its own file. undici's index loads all of it
 * (fetch, WebSocket, EventSource, the mock agents, cache stores and interceptors: 109 files); these are
 * three dispatchers and the request API (36 files), about 3 MiB less of the controller's idle RSS.
 *
 * undici's package.json has no "exports", so its files resolve by path; undici.test.ts fails when an
 * upgrade moves them or they stop being the classes the index exports. Types still come from 'undici'.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const require = createRequire(import.meta.url);

const Dispatcher = require('undici/lib/dispatcher/dispatcher') as typeof Undici.Dispatcher;
// What undici's index does: every dispatcher gets request(), stream(), pipeline(), connect(), upgrade().
Object.assign(Dispatcher.prototype, require('undici/lib/api'));

export const Pool = require('undici/lib/dispatcher/pool') as typeof Undici.Pool;
export type Pool = Undici.Pool;
export const Agent = require('undici/lib/dispatcher/agent') as typeof Undici.Agent;
export type Agent = Undici.Agent;
export const ProxyAgent = require('undici/lib/dispatcher/proxy-agent') as typeof Undici.ProxyAgent;
export type ProxyAgent = Undici.ProxyAgent;
/** undici's own socket connector, for dispatchers that check where they connect (verification). */
export const buildConnector = require('undici/lib/core/connect') as typeof Undici.buildConnector;
/** The dispatcher undici's top-level request() uses when it is given none. */
export const getGlobalDispatcher = (require('undici/lib/global') as typeof Undici).getGlobalDispatcher;
