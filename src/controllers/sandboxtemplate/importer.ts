/**
 * Import mode: one observe-only SandboxTemplate object (spec.templateName only, labelled as imported)
 * per template the control plane lists for the controller's own credentials, in one namespace, so
 * `kubectl get sbt -n <ns>` shows what the tenant has. Objects are only ever created here: an imported
 * object whose template disappears is reconciled to Ready False NotFound, never deleted.
 */
import type { Logger } from 'pino';
import type { SandboxTemplate } from '../../api/sandboxtemplate.ts';
import type { SandboxTemplate as ListedTemplate } from '../../controlplane/template-schemas.ts';
import { importedObjectName } from './naming.ts';

export const IMPORTED_LABEL = 'deploy.agents.dev/imported';

export interface TemplateImporterDeps {
  namespace: string;
  /** Whether the object cache is complete (before that, existing objects would look missing). */
  hasSynced(): boolean;
  /** SandboxTemplate objects in the import namespace. */
  existing(): SandboxTemplate[];
  /** The templates listed with the controller's credentials (the shared snapshot). */
  listTemplates(): Promise<readonly ListedTemplate[]>;
  /** Creates an object; an object that already exists counts as created. */
  create(name: string, templateName: string): Promise<void>;
  pollIntervalMs: number;
  logger: Logger;
}

const NOT_SYNCED_RETRY_MS = 1_000;
const FAILED_RETRY_MS = 5_000;

/**
 * Runs on a loop of its own while this replica leads (start/stop), one pass per poll interval; a
 * failed pass is logged and tried again sooner.
 */
export class TemplateImporter {
  readonly #deps: TemplateImporterDeps;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running = false;

  constructor(deps: TemplateImporterDeps) {
    this.#deps = deps;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#schedule(0);
  }

  stop(): void {
    this.#running = false;
    if (this.#timer) clearTimeout(this.#timer);
  }

  #schedule(ms: number): void {
    if (!this.#running) return;
    this.#timer = setTimeout(() => {
      this.sync()
        .catch((err: unknown) => {
          this.#deps.logger.warn(
            { error: err instanceof Error ? err.message : String(err) },
            'template import failed',
          );
          return { requeueAfterMs: FAILED_RETRY_MS };
        })
        .then(({ requeueAfterMs }) => this.#schedule(requeueAfterMs));
    }, ms);
  }

  /** One import pass; says when the next one is due. */
  async sync(): Promise<{ requeueAfterMs: number }> {
    const deps = this.#deps;
    const log = deps.logger;
    if (!deps.hasSynced()) return { requeueAfterMs: NOT_SYNCED_RETRY_MS };
    const objects = deps.existing();
    const represented = new Set(objects.map((o) => o.spec.templateName));
    const taken = new Set(objects.map((o) => o.metadata.name));
    const templates = await deps.listTemplates();
    const created: string[] = [];
    for (const template of templates) {
      if (represented.has(template.name)) continue;
      const name = importedObjectName(template.name, taken);
      await deps.create(name, template.name);
      represented.add(template.name);
      taken.add(name);
      created.push(name);
    }
    if (created.length > 0) {
      log.info({ namespace: deps.namespace, created: created.length }, 'imported sandbox templates');
    }
    return { requeueAfterMs: deps.pollIntervalMs };
  }
}

/** The object the importer creates. */
export function importedObject(
  apiVersion: string,
  kind: string,
  namespace: string,
  name: string,
  templateName: string,
) {
  return {
    apiVersion,
    kind,
    metadata: { name, namespace, labels: { [IMPORTED_LABEL]: 'true' } },
    spec: { templateName },
  };
}
