// The signed-in client and identity for every page; signing out forgets the key.
import type { ConduitClient } from '@conduit/sdk';
import { createContext, useContext } from 'react';
import type { Identity } from './identity.js';

export interface Session {
  client: ConduitClient;
  identity: Identity;
  signOut: () => void;
}

export const SessionContext = createContext<Session | undefined>(undefined);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in console');
  return session;
}
