/**
 * Imported objects as YAML, as kubectl users expect: per object, its Secret (with a comment when values
 * are placeholders) then the AgentDeployment. To standard output, or one file per object in a directory,
 * written all or nothing: every file goes to a temporary name first and is renamed only once all are
 * written.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import type { Imported } from './manifests.ts';

const dump = (doc: unknown) => yaml.dump(doc, { lineWidth: -1, noRefs: true });

// Comments are fixed text: a comment is YAML the library does not quote, so nothing the platform wrote
// (a deployment's name, a secret's name) goes into one. Platform strings travel as values, through dump.
const MASKED_COMMENT = [
  '# The platform masks some of these values: each REPLACE_ME_<name> below is a placeholder.',
  "# Put the real values in before applying: adoption takes the platform's values as current and sends",
  '# nothing, but the next change to any secret sends the whole list, placeholders included.',
  '',
].join('\n');
const ADOPTS_COMMENT = '# Adopts its deployment by id (the annotation below): applied, nothing is sent.\n';

/** One object's documents: its Secret, if any, then the AgentDeployment. */
export function objectYaml(imported: Imported): string {
  const docs = [`${ADOPTS_COMMENT}${dump(imported.agentDeployment)}`];
  if (imported.secret) {
    docs.unshift(`${imported.masked.length > 0 ? MASKED_COMMENT : ''}${dump(imported.secret)}`);
  }
  return docs.map((doc) => `---\n${doc}`).join('');
}

export const fileNameOf = (imported: Imported) => `${imported.agentDeployment.metadata.name}.yaml`;

/** Writes each object to `dir/<name>.yaml`, all or none. Returns the paths written. */
export function writeAll(dir: string, objects: readonly Imported[]): string[] {
  mkdirSync(dir, { recursive: true });
  const tag = randomBytes(4).toString('hex');
  const staged = objects.map((o) => ({
    temp: join(dir, `.${fileNameOf(o)}.${tag}.tmp`),
    final: join(dir, fileNameOf(o)),
    text: objectYaml(o),
  }));
  try {
    for (const f of staged) writeFileSync(f.temp, f.text, { mode: 0o600 });
  } catch (err) {
    for (const f of staged) rmSync(f.temp, { force: true });
    throw err;
  }
  for (const f of staged) renameSync(f.temp, f.final);
  return staged.map((f) => f.final);
}
