/** Listing a collection from the API server a page at a time, as an informer's list does. */
import type { KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import { z } from 'zod';
import type { KubeAccess } from '../kube/access.ts';
import { kubeRequest } from '../kube/request.ts';

/** Asks for metadata only (PartialObjectMetadataList), for kinds whose data is never read. */
const METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

/** Objects per list page: a namespace of 10,000 objects never arrives as one 30 MB body. */
export const LIST_PAGE_SIZE = 500;
/** Lists of a large namespace take longer than a single call's default deadline. */
const LIST_PAGE_DEADLINE_MS = 60_000;

const ListBody = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: z
    .looseObject({ resourceVersion: z.string().optional(), continue: z.string().optional() })
    .optional(),
  items: z.array(z.looseObject({ metadata: z.looseObject({}) })).nullish(),
});

type ListOptions = { labelSelector?: string | undefined; metadataOnly?: boolean; signal?: AbortSignal };

/**
 * Lists a collection path a page at a time; items get the apiVersion and kind that list answers leave
 * out. The resourceVersion is the first page's (every page is read at that version).
 */
export async function listPath<T extends KubernetesObject>(
  access: KubeAccess,
  path: string,
  options: ListOptions = {},
): Promise<KubernetesListObject<T>> {
  const items: T[] = [];
  let first: ListMeta | undefined;
  for await (const page of listPages<T>(access, path, options)) {
    first ??= page;
    items.push(...page.items);
  }
  return {
    apiVersion: first?.apiVersion,
    kind: first?.kind,
    metadata: { resourceVersion: first?.resourceVersion },
    items,
  };
}

interface ListMeta {
  apiVersion: string | undefined;
  kind: string | undefined;
  resourceVersion: string | undefined;
}

/**
 * The pages of a listing one at a time, each dropped once the caller moved on: a reader that keeps a
 * few objects of a large namespace never holds all of them at once (10,000 objects parsed are about
 * 50 MB of heap).
 */
export async function* listPages<T extends KubernetesObject>(
  access: KubeAccess,
  path: string,
  options: ListOptions = {},
): AsyncGenerator<ListMeta & { items: T[] }> {
  let next: string | undefined;
  do {
    const body = ListBody.parse(
      await kubeRequest(access, {
        method: 'GET',
        path,
        query: { labelSelector: options.labelSelector, limit: String(LIST_PAGE_SIZE), continue: next },
        accept: options.metadataOnly ? METADATA_LIST : undefined,
        deadlineMs: LIST_PAGE_DEADLINE_MS,
        signal: options.signal,
      }),
    );
    const kind = body.kind?.replace(/List$/, '');
    yield {
      apiVersion: body.apiVersion,
      kind: body.kind,
      resourceVersion: body.metadata?.resourceVersion,
      items: (body.items ?? []).map(
        (item) => ({ apiVersion: body.apiVersion, kind, ...item }) as unknown as T,
      ),
    };
    next = body.metadata?.continue || undefined;
  } while (next);
}
