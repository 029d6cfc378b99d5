import { describe, expect, it } from 'vitest';
import { AGENT_DEPLOYMENT, SANDBOX_TEMPLATE } from '../api/group.ts';
import { ObjectArgError, objectPath, parseObjectArg } from './objects.ts';

const BOTH = [AGENT_DEPLOYMENT, SANDBOX_TEMPLATE];

describe('parseObjectArg', () => {
  it.each<[string, string, string]>([
    ['agent', 'AgentDeployment', 'agent'],
    ['agd/agent', 'AgentDeployment', 'agent'],
    ['AgentDeployment/agent', 'AgentDeployment', 'agent'],
    ['agentdeployments.deploy.agents.dev/agent', 'AgentDeployment', 'agent'],
    ['sbt/python', 'SandboxTemplate', 'python'],
    ['sandboxtemplate/python', 'SandboxTemplate', 'python'],
  ])('%s', (arg, kind, name) => {
    const ref = parseObjectArg(arg, 'team-a', BOTH);
    expect([ref.kind.kind, ref.namespace, ref.name]).toEqual([kind, 'team-a', name]);
  });

  it.each<[string, string]>([
    ['deployment/agent', 'the kind must be one of agentdeployment, sandboxtemplate'],
    ['Agent', 'not an object name'],
    ['agd/', 'not an object name'],
    ['a/b/c', 'the kind must be one of'],
    ['agd/b/c', 'not an object name'],
    ['agent\u001b[2J', 'not an object name'],
  ])('refuses %j', (arg, why) => {
    expect(() => parseObjectArg(arg, 'team-a', BOTH)).toThrow(ObjectArgError);
    expect(() => parseObjectArg(arg, 'team-a', BOTH)).toThrow(why);
  });

  it('refuses a kind the verb does not act on', () => {
    expect(() => parseObjectArg('sbt/python', 'team-a', [AGENT_DEPLOYMENT])).toThrow(
      'the kind must be one of agentdeployment',
    );
  });

  it('paths', () => {
    expect(objectPath(parseObjectArg('sbt/python', 'team-a', BOTH))).toBe(
      '/apis/deploy.agents.dev/v1alpha1/namespaces/team-a/sandboxtemplates/python',
    );
  });
});
