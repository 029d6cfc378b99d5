import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { OPERATOR_VERSION, userAgent } from './version.ts';

it("is package.json's version", () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  expect(OPERATOR_VERSION).toBe(pkg.version);
});

it.each([
  { identity: undefined, header: `agent-deployment-operator/${OPERATOR_VERSION}` },
  {
    identity: 'op-7d9f-x2_ab12cd34',
    header: `agent-deployment-operator/${OPERATOR_VERSION} (op-7d9f-x2_ab12cd34)`,
  },
  { identity: 'bad)(name\n', header: `agent-deployment-operator/${OPERATOR_VERSION} (bad--name-)` },
])('User-Agent for $identity', ({ identity, header }) => {
  expect(userAgent(identity)).toBe(header);
});
