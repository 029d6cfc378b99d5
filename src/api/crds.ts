/** The CustomResourceDefinitions of this API, built from the zod schemas. */
import type { z } from 'zod';
import { AgentDeployment } from './agentdeployment.ts';
import { ObjectMeta } from './common.ts';
import { DeploymentWindowPolicy } from './deployment-window-policy.ts';
import {
  AGENT_DEPLOYMENT,
  CATEGORY,
  DEPLOYMENT_WINDOW_POLICY,
  GROUP,
  type KindNames,
  SANDBOX_TEMPLATE,
  VERSION,
} from './group.ts';
import { SandboxTemplate } from './sandboxtemplate.ts';
import { type JsonSchema, toStructural } from './structural.ts';

export type PrinterColumn = {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  priority?: number;
};

export type CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: { name: string; annotations: Record<string, string> };
  spec: JsonSchema;
};

/**
 * Deleting a CRD deletes every object of its kind, and with `deletionPolicy: Delete` the controller then
 * deletes their deployments on the platform. So no uninstall may delete the CRDs by accident: Helm keeps
 * them, and Argo CD neither prunes them nor deletes them with the Application. (kubectl delete -k honours
 * no annotation: manifests/ keeps the CRDs in a kustomization of their own.) docs/install.md: Uninstalling.
 */
export const CRD_KEEP_ANNOTATIONS = {
  'helm.sh/resource-policy': 'keep',
  'argocd.argoproj.io/sync-options': 'Delete=false,Prune=false',
} as const;

const READY: PrinterColumn = {
  name: 'Ready',
  type: 'string',
  jsonPath: '.status.conditions[?(@.type=="Ready")].status',
  description: 'Status of the Ready condition.',
};
const AGE: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

function rootSchema(schema: z.ZodType, description: string): JsonSchema {
  // metadata belongs to the API server: a CRD may state nothing about it but type: object.
  const root = toStructural(schema, new Map([[ObjectMeta, { type: 'object' }]]));
  const { properties: props, 'x-kubernetes-validations': rules } = root;
  return {
    description,
    type: 'object',
    properties: props,
    required: ['spec'],
    ...(rules ? { 'x-kubernetes-validations': rules } : {}),
  };
}

function crd(
  names: KindNames,
  schema: JsonSchema,
  columns: PrinterColumn[],
  scope: 'Namespaced' | 'Cluster' = 'Namespaced',
): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${names.plural}.${GROUP}`, annotations: { ...CRD_KEEP_ANNOTATIONS } },
    spec: {
      group: GROUP,
      names: {
        kind: names.kind,
        listKind: names.listKind,
        plural: names.plural,
        singular: names.singular,
        shortNames: [...names.shortNames],
        categories: [CATEGORY],
      },
      scope,
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: columns,
          schema: { openAPIV3Schema: schema },
        },
      ],
    },
  };
}

export function agentDeploymentCrd(): CustomResourceDefinition {
  return crd(
    AGENT_DEPLOYMENT,
    rootSchema(
      AgentDeployment,
      'AgentDeployment is an agent-server deployment on the hosted control plane, kept in line with this spec by the controller.',
    ),
    [
      {
        name: 'Source',
        type: 'string',
        jsonPath: '.spec.source',
        description: 'repo_host or external_image.',
      },
      {
        name: 'Deployment',
        type: 'string',
        jsonPath: '.status.deploymentStatus',
        description: 'Status of the deployment on the control plane.',
      },
      {
        name: 'Revision',
        type: 'string',
        jsonPath: '.status.revisionStatus',
        description: 'Status of the latest revision.',
      },
      READY,
      AGE,
    ],
  );
}

export function sandboxTemplateCrd(): CustomResourceDefinition {
  return crd(
    SANDBOX_TEMPLATE,
    rootSchema(
      SandboxTemplate,
      'SandboxTemplate names a sandbox template on the control plane and states the shape it should have; the controller reports what it observes and any drift.',
    ),
    [{ name: 'Image', type: 'string', jsonPath: '.spec.image', description: 'Expected image.' }, READY, AGE],
  );
}

export function deploymentWindowPolicyCrd(): CustomResourceDefinition {
  return crd(
    DEPLOYMENT_WINDOW_POLICY,
    rootSchema(
      DeploymentWindowPolicy,
      'DeploymentWindowPolicy holds changes of the AgentDeployments it selects while its deployment windows are closed: a freeze the platform team owns (cluster-scoped: a namespace user cannot lift it).',
    ),
    [
      {
        name: 'Held',
        type: 'integer',
        jsonPath: '.status.heldObjects',
        description: 'AgentDeployments held now.',
      },
      {
        name: 'Override',
        type: 'boolean',
        jsonPath: '.spec.manualOverride',
        description: 'Whether the override-window annotation lifts it.',
      },
      READY,
      AGE,
    ],
    'Cluster',
  );
}

export function allCrds(): CustomResourceDefinition[] {
  return [agentDeploymentCrd(), sandboxTemplateCrd(), deploymentWindowPolicyCrd()];
}
