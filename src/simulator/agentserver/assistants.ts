/** One default assistant per graph (config `{}`), with search by metadata and graph id. */
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { stableUuid } from '../templates.ts';

export interface Assistant {
  assistant_id: string;
  graph_id: string;
  config: Record<string, unknown>;
  context: Record<string, unknown>;
  metadata: Record<string, unknown>;
  name: string;
  description: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

export const AssistantSearchSchema = z
  .object({
    metadata: z.record(z.string(), z.unknown()).optional(),
    graph_id: z.string().optional(),
    limit: z.number().int().min(1).max(1000).default(10),
    offset: z.number().int().min(0).default(0),
  })
  .loose();
export type AssistantSearch = z.infer<typeof AssistantSearchSchema>;

export function defaultAssistants(
  deploymentId: string,
  graphIds: readonly string[],
  at: string,
): Assistant[] {
  return graphIds.map((graphId) => ({
    assistant_id: stableUuid(`assistant:${deploymentId}:${graphId}`),
    graph_id: graphId,
    config: {},
    context: {},
    metadata: { created_by: 'system' },
    name: graphId,
    description: null,
    version: 1,
    created_at: at,
    updated_at: at,
  }));
}

/** `assistant_id` may name a graph (its default assistant) or an assistant's uuid. */
export function findAssistant(assistants: readonly Assistant[], id: string): Assistant | undefined {
  return assistants.find((a) => a.graph_id === id) ?? assistants.find((a) => a.assistant_id === id);
}

export function searchAssistants(assistants: readonly Assistant[], filter: AssistantSearch): Assistant[] {
  return assistants
    .filter((a) => filter.graph_id === undefined || a.graph_id === filter.graph_id)
    .filter((a) =>
      Object.entries(filter.metadata ?? {}).every(([key, value]) =>
        isDeepStrictEqual(a.metadata[key], value),
      ),
    )
    .slice(filter.offset, filter.offset + filter.limit);
}
