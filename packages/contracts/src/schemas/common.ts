import { z } from 'zod';

export const LIMITS = {
  bodyBytes: 1024 * 1024,
  nameLength: 200,
  descriptionLength: 2000,
  jsonDepth: 64,
} as const;

export const nameSchema = z.string().trim().min(1).max(LIMITS.nameLength);
export const descriptionSchema = z.string().max(LIMITS.descriptionLength).nullable();
/** Ids in bodies and filters are checked loosely here (string of sane length); existence is the owner's check. */
export const idRefSchema = z.string().min(1).max(64);
export const jsonObjectSchema = z.record(z.string(), z.unknown());

export const SCOPES = ['read', 'write', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
