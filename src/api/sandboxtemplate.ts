/**
 * SandboxTemplate (deploy.agents.dev/v1alpha1): names a control-plane sandbox template and states what it
 * should look like. The control plane only lists templates, so the controller observes and reports drift;
 * it never writes. Proxy-rule header values may carry credentials: only header names appear here.
 */
import { z } from 'zod';
import {
  API_VERSION_DESCRIPTION,
  cel,
  celUnique,
  conditions,
  KIND_DESCRIPTION,
  localRef,
  ObjectMeta,
  quantity,
  UNOBSERVED_STATUS,
} from './common.ts';

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

export const TemplateResources = z.object({
  cpu: quantity().optional().describe('CPU as a Kubernetes quantity, e.g. 500m or 2.'),
  memory: quantity().optional().describe('Memory as a Kubernetes quantity, e.g. 512Mi or 2Gi.'),
  storage: quantity().optional().describe('Storage as a Kubernetes quantity, e.g. 10Gi.'),
});
export type TemplateResources = z.infer<typeof TemplateResources>;

export const TemplateVolumeMount = z.object({
  volumeName: z.string().min(1).max(253).describe('Name of the volume.'),
  mountPath: z.string().min(1).max(4096).describe('Path inside the sandbox at which the volume is mounted.'),
});
export type TemplateVolumeMount = z.infer<typeof TemplateVolumeMount>;

const hosts = () => z.array(z.string().max(253)).max(64);
const paths = () => z.array(z.string().max(4096)).max(64);
const headerNames = () => z.array(z.string().min(1).max(256).regex(HEADER_NAME)).max(32);

export const ProxyRule = z.object({
  name: z.string().min(1).max(253).describe('Name of the proxy rule, unique within the template.'),
  matchHosts: hosts().optional().describe('Hosts the rule applies to.'),
  matchPaths: paths().optional().describe('Path patterns the rule applies to.'),
  enabled: z.boolean().optional().describe('Whether the rule is active.'),
  injectHeaderNames: headerNames()
    .optional()
    .describe(
      'Names of the headers the rule injects. Only names: header values may carry credentials and never belong in git or status.',
    ),
});
export type ProxyRule = z.infer<typeof ProxyRule>;

export const SandboxTemplateSpec = z.object({
  templateName: z
    .string()
    .min(1)
    .max(253)
    .meta(cel({ rule: 'self == oldSelf', message: 'spec.templateName is immutable' }))
    .describe('Exact name of the sandbox template on the control plane. Immutable.'),
  image: z.string().max(4096).optional().describe('Expected container image of the template.'),
  resources: TemplateResources.optional().describe('Expected resources of the template.'),
  volumeMounts: z
    .array(TemplateVolumeMount)
    .max(64)
    .optional()
    .describe('Expected volume mounts of the template.'),
  proxyRules: z
    .array(ProxyRule)
    .max(64)
    .meta(cel(celUnique('name', 'spec.proxyRules[].name must be unique')))
    .optional()
    .describe('Expected proxy rules of the template (proxy_config.rules).'),
  noProxy: z
    .array(z.string().max(253))
    .max(128)
    .optional()
    .describe('Expected hosts that bypass the proxy (proxy_config.no_proxy).'),
  registryName: z.string().max(253).optional().describe('Expected registry of the template.'),
  credentialsSecretRef: localRef(
    "Name of a Secret in the object's namespace with keys apiKey, and optionally tenantId, bearerToken and baseUrl.",
  )
    .optional()
    .describe(
      "Control-plane credentials for this object instead of the controller's own; never another namespace's.",
    ),
});
export type SandboxTemplateSpec = z.infer<typeof SandboxTemplateSpec>;

export const ObservedProxyRule = z.object({
  name: z.string().max(253).describe('Name of the proxy rule.'),
  matchHosts: hosts().optional().describe('Hosts the rule applies to.'),
  matchPaths: paths().optional().describe('Path patterns the rule applies to.'),
  enabled: z.boolean().optional().describe('Whether the rule is active.'),
  injectedHeaderNames: z
    .array(z.string().max(256))
    .max(32)
    .optional()
    .describe('Names of the headers the rule injects (values are never copied).'),
});
export type ObservedProxyRule = z.infer<typeof ObservedProxyRule>;

export const ObservedTemplate = z.object({
  image: z.string().max(4096).optional().describe('Container image of the template.'),
  resources: z
    .object({
      cpu: z.string().max(64).optional().describe('CPU as a Kubernetes quantity (cores or m).'),
      memory: z.string().max(64).optional().describe('Memory as a Kubernetes quantity (Mi, Gi).'),
      storage: z.string().max(64).optional().describe('Storage as a Kubernetes quantity (Gi).'),
    })
    .optional()
    .describe('Resources of the template.'),
  volumeMounts: z.array(TemplateVolumeMount).max(64).optional().describe('Volume mounts of the template.'),
  proxyRules: z
    .array(ObservedProxyRule)
    .max(64)
    .optional()
    .describe('Proxy rules of the template, without header values.'),
  noProxy: z.array(z.string().max(253)).max(128).optional().describe('Hosts that bypass the proxy.'),
});
export type ObservedTemplate = z.infer<typeof ObservedTemplate>;

export const Drift = z.object({
  field: z.string().max(256).describe('Spec field that differs, e.g. image or resources.cpu.'),
  expected: z.string().max(4096).describe('Value the spec states.'),
  observed: z.string().max(4096).describe('Value observed on the control plane.'),
});
export type Drift = z.infer<typeof Drift>;

export const SandboxTemplateStatus = z.object({
  templateId: z.string().max(64).optional().describe('Id of the template on the control plane.'),
  registryName: z.string().max(253).optional().describe('Registry of the template.'),
  registryId: z.string().max(64).optional().describe('Id of the registry of the template.'),
  createdAt: z
    .string()
    .max(64)
    .optional()
    .describe('When the template was created, as the control plane reports it.'),
  updatedAt: z
    .string()
    .max(64)
    .optional()
    .describe('When the template was last updated, as the control plane reports it.'),
  observed: ObservedTemplate.optional().describe('The template as last observed on the control plane.'),
  drift: z
    .array(Drift)
    .max(64)
    .optional()
    .describe('Fields where the observed template differs from the spec; empty when in sync.'),
  lastSyncTime: z.iso
    .datetime()
    .optional()
    .describe(
      'When the listing this status was last changed from was taken (RFC 3339). A listing that changes nothing is not written, so a steady object costs no status write.',
    ),
  lastHandledReconcileAt: z
    .string()
    .max(256)
    .optional()
    .describe('Value of the reconcile-requested-at annotation the controller last acted on.'),
  observedGeneration: z.int().min(0).optional().describe('metadata.generation this status describes.'),
  conditions: conditions().optional(),
});
export type SandboxTemplateStatus = z.infer<typeof SandboxTemplateStatus>;

export const SandboxTemplate = z.object({
  apiVersion: z.string().describe(API_VERSION_DESCRIPTION),
  kind: z.string().describe(KIND_DESCRIPTION),
  metadata: ObjectMeta,
  spec: SandboxTemplateSpec.describe('The sandbox template this object names and the shape it should have.'),
  status: SandboxTemplateStatus.default(UNOBSERVED_STATUS)
    .optional()
    .describe('State observed by the controller.'),
});
export type SandboxTemplate = z.infer<typeof SandboxTemplate>;
