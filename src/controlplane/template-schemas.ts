/**
 * The control plane's sandbox template shapes, as the interface document names them (snake_case on the
 * wire). Which fields are required is "not shown": id and name are relied on; any other field may come
 * back null, and unknown fields are kept.
 */
import { z } from 'zod';

/** An optional field that may come back null; null reads as absent. */
const maybe = <T extends z.ZodType>(schema: T) =>
  schema
    .nullish()
    .transform((value): z.output<T> | undefined => value ?? undefined)
    .optional();

export const ProxyRule = z
  .object({
    name: maybe(z.string()),
    match_hosts: maybe(z.array(z.string())),
    inject_headers: maybe(z.record(z.string(), z.string())),
    match_paths: maybe(z.array(z.string())),
    enabled: maybe(z.boolean()),
  })
  .loose();
export type ProxyRule = z.infer<typeof ProxyRule>;

export const SandboxTemplate = z
  .object({
    id: z.string(),
    name: z.string(),
    image: maybe(z.string()),
    resources: maybe(
      z.object({ cpu: maybe(z.string()), memory: maybe(z.string()), storage: maybe(z.string()) }).loose(),
    ),
    volume_mounts: maybe(z.array(z.object({ volume_name: z.string(), mount_path: z.string() }).loose())),
    proxy_config: maybe(
      z.object({ rules: maybe(z.array(ProxyRule)), no_proxy: maybe(z.array(z.string())) }).loose(),
    ),
    registry_name: maybe(z.string()),
    registry_id: maybe(z.string()),
    created_at: maybe(z.string()),
    updated_at: maybe(z.string()),
  })
  .loose();
export type SandboxTemplate = z.infer<typeof SandboxTemplate>;

export const SandboxTemplateList = z
  .object({ templates: z.array(SandboxTemplate), offset: z.number().int() })
  .loose();
export type SandboxTemplateList = z.infer<typeof SandboxTemplateList>;
