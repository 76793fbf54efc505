import { z } from 'zod';
import { type IdKind, idPattern, EXAMPLE_IDS } from '@conduit/contracts';
import type { NamedExample } from '../operation-spec.js';

/** Path parameters naming resources by id: a malformed id is a 404 (never a 400), like an unknown one. */
export function idParams(names: Record<string, IdKind>): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, kind] of Object.entries(names)) {
    shape[name] = z.string().meta({
      pattern: idPattern(kind),
      example: EXAMPLE_IDS[kind],
      description: `The ${kind === 'apiKey' ? 'API key' : kind}'s id.`,
    });
  }
  return z.object(shape);
}

export const one = (summary: string, value: unknown): Record<string, NamedExample> => ({ example: { summary, value } });

export const page = <T>(items: T[]) => ({ data: items, next_cursor: null });
