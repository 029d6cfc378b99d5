import type { z } from 'zod';

/** A zod error as one line per problem, each naming the field and the rule. */
export function schemaProblems(error: z.ZodError, root: string): string {
  return error.issues.map((i) => `${[root, ...i.path.map(String)].join('.')}: ${i.message}`).join('; ');
}
