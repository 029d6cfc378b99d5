/**
 * The work queue's operations per second with 1,000 and 100,000 keys waiting: what a hand-out, a key
 * put first and a fairness decision cost as the queue grows (a convergence of N objects queues N).
 * Not a test and no assertions: `node bench/queue-micro.ts` prints a table (see bench/README.md).
 */
import { WorkQueue } from '../src/runtime/workqueue.ts';

const SIZES = [1_000, 100_000];
/** Operations per round; a round warms up, then the best of ROUNDS counts (the machine is shared). */
const OPS = 2_000;
const ROUNDS = 3;

/** As src/operator.ts configures it with 4 workers: half the shared workers per tenant, 4 shared slots. */
const operatorLike = (tenantOf: (key: string) => string | undefined) =>
  new WorkQueue({ qps: 1e12, burst: 1e12, tenantOf, maxPerTenant: 2, sharedSlots: 4 });

interface Scenario {
  name: string;
  /** Builds a queue with `waiting` keys waiting, and returns one operation to repeat on it. */
  setUp(waiting: number): Promise<() => Promise<void>>;
}

const scenarios: Scenario[] = [
  {
    // A worker takes the oldest key, is done with it, and the key comes back at the end (one tenant).
    name: 'hand-out, done, add again',
    async setUp(waiting) {
      const queue = operatorLike(() => 'one');
      for (let i = 0; i < waiting; i++) queue.add(`ns/k${i}`);
      return async () => {
        const key = (await queue.get()) as string;
        queue.done(key);
        queue.add(key);
      };
    },
  },
  {
    // A key continuing work (a revision followed) comes back first, and a waiting key is put first.
    name: 'hand-out, done, add first; put a waiting key first',
    async setUp(waiting) {
      const queue = operatorLike(() => 'one');
      for (let i = 0; i < waiting; i++) queue.add(`ns/k${i}`);
      let next = waiting - 1;
      return async () => {
        const key = (await queue.get()) as string;
        queue.done(key);
        queue.add(key, { first: true });
        queue.add(`ns/k${next}`, { first: true });
        next = next > 0 ? next - 1 : waiting - 1;
      };
    },
  },
  {
    // A tenant holding its share has its keys waiting ahead of another tenant's: the fairness rule
    // hands out the other tenant's keys, oldest first. (100 of them: V8's Map and Set slow down
    // when one key is deleted and added again and again, each time longer with the size.)
    name: 'fairness: a tenant below its share behind N of one at it',
    async setUp(waiting) {
      const queue = operatorLike((key) => (key.startsWith('busy/') ? 'busy' : 'quiet'));
      for (let i = 0; i < waiting; i++) queue.add(`busy/k${i}`);
      await queue.get();
      await queue.get();
      for (let i = 0; i < 100; i++) queue.add(`quiet/k${i}`);
      return async () => {
        const key = (await queue.get()) as string;
        queue.done(key);
        queue.add(key);
      };
    },
  },
];

const rows: string[] = [];
for (const scenario of scenarios) {
  const rates = [];
  for (const size of SIZES) {
    const op = await scenario.setUp(size);
    for (let i = 0; i < OPS; i++) await op();
    let best = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < OPS; i++) await op();
      best = Math.max(best, OPS / (Number(process.hrtime.bigint() - start) / 1e9));
    }
    rates.push(Math.round(best));
  }
  rows.push(`| ${scenario.name} | ${rates.map((r) => r.toLocaleString('en')).join(' | ')} |`);
}
console.log(`| ops/s | ${SIZES.map((s) => `${s.toLocaleString('en')} waiting`).join(' | ')} |`);
console.log(`| --- | ${SIZES.map(() => '---').join(' | ')} |`);
for (const row of rows) console.log(row);
