/**
 * A listed template as status shows it: ids, registry, timestamps, and its shape in the object's own
 * terms, resources in Kubernetes quantity notation. Proxy rules keep only the names of the headers they
 * inject: header values can carry credentials and never leave this function.
 */
import type {
  ObservedProxyRule,
  ObservedTemplate,
  SandboxTemplateStatus,
} from '../../api/sandboxtemplate.ts';
import type { ProxyRule, SandboxTemplate } from '../../controlplane/template-schemas.ts';
import { formatBytes, formatCpu } from '../../translate/quantity.ts';

export type TemplateFacts = Pick<
  SandboxTemplateStatus,
  'templateId' | 'registryName' | 'registryId' | 'createdAt' | 'updatedAt' | 'observed'
>;

export function observedFacts(t: SandboxTemplate): TemplateFacts {
  return {
    templateId: t.id,
    registryName: t.registry_name,
    registryId: t.registry_id,
    createdAt: t.created_at,
    updatedAt: t.updated_at,
    observed: observedShape(t),
  };
}

function observedShape(t: SandboxTemplate): ObservedTemplate {
  const r = t.resources;
  return {
    image: t.image,
    resources: r && {
      cpu: r.cpu === undefined ? undefined : formatCpu(r.cpu),
      memory: r.memory === undefined ? undefined : formatBytes(r.memory),
      storage: r.storage === undefined ? undefined : formatBytes(r.storage),
    },
    volumeMounts: t.volume_mounts?.map((m) => ({ volumeName: m.volume_name, mountPath: m.mount_path })),
    proxyRules: t.proxy_config?.rules?.map(observedRule),
    noProxy: t.proxy_config?.no_proxy,
  };
}

function observedRule(rule: ProxyRule): ObservedProxyRule {
  return {
    name: rule.name ?? '',
    matchHosts: rule.match_hosts,
    matchPaths: rule.match_paths,
    enabled: rule.enabled,
    // Names only, sorted: the values are never read.
    injectedHeaderNames: rule.inject_headers ? Object.keys(rule.inject_headers).sort() : undefined,
  };
}
