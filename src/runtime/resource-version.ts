/**
 * The order of two resourceVersions of one object. Kubernetes calls them opaque, but the API server
 * hands out etcd revisions, decimal integers that grow with every write to the store; its own watch
 * cache orders events by them, and the consistent reads of KEP-2340 compare them. This is all the
 * controller relies on: within one resource, a larger number is a later write. A version that is not a
 * decimal integer (another server) is never judged older, so the cache behaves as before there.
 */
const DECIMAL = /^[0-9]{1,30}$/;

/** Whether version `a` is known to come before version `b`. */
export function isOlderVersion(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined || !DECIMAL.test(a) || !DECIMAL.test(b)) return false;
  return BigInt(a) < BigInt(b);
}
