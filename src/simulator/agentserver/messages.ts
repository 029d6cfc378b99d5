/**
 * Messages as the state holds them (the document's Message table), built from run input (`role` and
 * `content`) or from stored form (`type`), and the append-or-replace-by-id reducer of `values.messages`.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';

export interface Message {
  type: string;
  content: string | unknown[];
  additional_kwargs: Record<string, unknown>;
  response_metadata: Record<string, unknown>;
  name: string | null;
  id: string;
  example: boolean;
  tool_calls?: unknown[];
  invalid_tool_calls?: unknown[];
  usage_metadata?: Record<string, unknown> | null;
}

const ROLE_TO_TYPE: Record<string, string> = {
  user: 'human',
  human: 'human',
  assistant: 'ai',
  ai: 'ai',
  system: 'system',
  tool: 'tool',
};

export const InputMessageSchema = z
  .object({
    role: z.enum(Object.keys(ROLE_TO_TYPE) as [string, ...string[]]).optional(),
    type: z.enum(Object.keys(ROLE_TO_TYPE) as [string, ...string[]]).optional(),
    content: z.union([z.string(), z.array(z.unknown())]),
    id: z.string().optional(),
    name: z.string().nullable().optional(),
    additional_kwargs: z.record(z.string(), z.unknown()).optional(),
    response_metadata: z.record(z.string(), z.unknown()).optional(),
    example: z.boolean().optional(),
    tool_calls: z.array(z.unknown()).optional(),
    invalid_tool_calls: z.array(z.unknown()).optional(),
    usage_metadata: z.record(z.string(), z.unknown()).nullable().optional(),
  })
  .refine((m) => m.role !== undefined || m.type !== undefined, {
    message: 'A message needs a role or a type',
  });
export type InputMessage = z.infer<typeof InputMessageSchema>;

export function toMessage(input: InputMessage): Message {
  const type = ROLE_TO_TYPE[input.type ?? input.role ?? 'human'] ?? 'human';
  const base: Message = {
    type,
    content: input.content,
    additional_kwargs: input.additional_kwargs ?? {},
    response_metadata: input.response_metadata ?? {},
    name: input.name ?? null,
    id: input.id ?? randomUUID(),
    example: input.example ?? false,
  };
  if (type !== 'ai') return base;
  return {
    ...base,
    tool_calls: input.tool_calls ?? [],
    invalid_tool_calls: input.invalid_tool_calls ?? [],
    usage_metadata: input.usage_metadata ?? null,
  };
}

export function aiMessage(content: string): Message {
  return toMessage({ type: 'ai', content });
}

/** A message with the id of an existing one replaces it; any other is appended. */
export function addMessages(current: readonly Message[], incoming: readonly Message[]): Message[] {
  const merged = [...current];
  for (const message of incoming) {
    const at = merged.findIndex((m) => m.id === message.id);
    if (at >= 0) merged[at] = message;
    else merged.push(message);
  }
  return merged;
}

/** The text of a message's content; array content contributes its text parts. */
export function textOf(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((part) =>
      typeof part === 'string'
        ? part
        : typeof (part as { text?: unknown }).text === 'string'
          ? (part as { text: string }).text
          : '',
    )
    .join('');
}
