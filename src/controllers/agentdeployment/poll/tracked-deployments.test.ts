import { describe, expect, it } from 'vitest';
import { credentialsKey } from '../../../controlplane/credentials.ts';
import { TrackedDeployments } from './tracked-deployments.ts';

const one = { baseUrl: 'https://cp.example.com', apiKey: 'key-one' };
const two = { baseUrl: 'https://cp.example.com', apiKey: 'key-two' };

describe('TrackedDeployments', () => {
  it.each<[string, (t: TrackedDeployments) => void, Array<[string, typeof one, boolean]>]>([
    ['nothing tracked', () => {}, [['team', one, false]]],
    [
      'two objects of a namespace: used until the last goes',
      (t) => {
        t.track('team/a', one, 'd-a');
        t.track('team/b', one, 'd-b');
        t.track('team/a', one, 'd-a'); // a pass again counts nothing more
        t.untrack('team/a');
      },
      [
        ['team', one, true],
        ['other', one, false],
        ['team', two, false],
      ],
    ],
    [
      'an object moved to other credentials: the first is no longer used there',
      (t) => {
        t.track('team/a', one, 'd-a');
        t.track('team/a', two, 'd-a');
      },
      [
        ['team', one, false],
        ['team', two, true],
      ],
    ],
    [
      'the last object untracked, twice',
      (t) => {
        t.track('team/a', one, 'd-a');
        t.untrack('team/a');
        t.untrack('team/a');
      },
      [['team', one, false]],
    ],
  ])('which identities a namespace uses: %s', (_name, given, expected) => {
    const tracked = new TrackedDeployments();
    given(tracked);
    for (const [namespace, credentials, uses] of expected) {
      expect(tracked.uses(namespace, credentialsKey(credentials)), `${namespace} ${credentials.apiKey}`).toBe(
        uses,
      );
    }
  });
});
