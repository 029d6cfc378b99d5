/**
 * The API server's validation of a create, offline: each object is checked against its CRD as
 * `allCrds()` builds it (the function `make generate` writes crds/ from, so these are the CRDs the
 * cluster runs): its metadata (metadata.ts), then the OpenAPI schema (openapi.ts), then, unless an
 * error blocks them, every `x-kubernetes-validations` rule (cel-rules.ts). The refusal reads as the
 * API server's. test/plan-validation-agreement.test.ts holds the two to the same verdict and words.
 */
import { allCrds, type CustomResourceDefinition } from '../../api/crds.ts';
import type { JsonSchema } from '../../api/structural.ts';
import type { InputObject } from '../model.ts';
import { ruleErrors } from './cel-rules.ts';
import { type FieldError, formatInvalid } from './field-error.ts';
import { type Metadata, metadataErrors } from './metadata.ts';
import { schemaErrors, withDefaults } from './openapi.ts';

/**
 * Errors after which the API server does not evaluate the CEL rules (they could not type-check or
 * would cost without bound): a wrong type, a value outside its enum, a missing required field, a string
 * or list over its maximum.
 */
const isBlocking = (e: FieldError) =>
  e.blocking === true ||
  e.type === 'Unsupported value' ||
  e.type === 'Required value' ||
  e.type === 'Too long' ||
  e.type === 'Too many';

export interface OfflineValidator {
  /** Every error the API server would give a create of `obj`; empty when it would accept it. */
  errors(obj: InputObject): FieldError[];
  /** The API server's refusal message, or undefined when it would accept `obj`. */
  refusal(obj: InputObject): string | undefined;
}

/** `skip`: rules left out, by source (`spec.secrets[] <rule>`): only the test that proves it can fail. */
export function offlineValidator(
  crds: readonly CustomResourceDefinition[] = allCrds(),
  skip: ReadonlySet<string> = new Set(),
): OfflineValidator {
  const schemas = new Map<string, JsonSchema>();
  for (const crd of crds) {
    const spec = crd.spec as { group: string; names: { kind: string }; versions: JsonSchema[] };
    for (const version of spec.versions) {
      const schema = (version.schema as { openAPIV3Schema: JsonSchema }).openAPIV3Schema;
      schemas.set(`${spec.group}/${version.name}/${spec.names.kind}`, schema);
    }
  }
  const errors = (obj: InputObject): FieldError[] => {
    const schema = schemas.get(`${obj.apiVersion}/${obj.kind}`);
    if (!schema) throw new Error(`no CRD serves ${obj.kind} in ${obj.apiVersion}`);
    // A create cannot set status (the status subresource): the API server drops it before validating.
    const { metadata, status: _status, ...body } = obj as InputObject & { status?: unknown };
    const found = metadataErrors(metadata as Metadata);
    const value = withDefaults(schema, body) as Record<string, unknown>;
    const schemaFound = schemaErrors(schema, value, '', '');
    // Server-side apply refuses undeclared fields before anything else, and alone.
    const undeclared = schemaFound.filter((e) => e.type === 'field not declared in schema');
    if (undeclared.length > 0) return undeclared;
    found.push(...schemaFound);
    if (found.some(isBlocking)) {
      found.push({
        field: '<nil>',
        type: 'Invalid value',
        value: null,
        detail:
          'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
      });
      return found;
    }
    const self = { ...value, metadata: { name: metadata.name } };
    found.push(...ruleErrors(schema, self, '', '', skip));
    return found;
  };
  return {
    errors,
    refusal(obj) {
      const found = errors(obj);
      if (found.length === 0) return undefined;
      if (found[0]?.type === 'field not declared in schema') {
        // As server-side apply words it (the plan's dry run with a cluster).
        const where = `${obj.metadata.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata.name}`;
        const fields = found.map((e) => `.${e.field}: ${e.type}`).join(', ');
        return `failed to create typed patch object (${where}; ${obj.apiVersion}, Kind=${obj.kind}): ${fields}`;
      }
      const group = obj.apiVersion.split('/')[0];
      return formatInvalid(`${obj.kind}.${group}`, obj.metadata.name, found);
    },
  };
}
