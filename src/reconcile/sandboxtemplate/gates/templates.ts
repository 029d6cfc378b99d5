/** Gate `templates`: every template the credentials reach is listed (once). */
import type { TemplateGate } from '../verdict.ts';

export const templates: TemplateGate = (facts) =>
  facts.templates ? undefined : { gate: 'templates', kind: 'read', read: 'templates' };
