import { useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useCallback, useContext, useMemo, useSyncExternalStore } from 'react';
import { useLocation } from 'wouter';
import type { Me, Permission } from '../api/types.js';
import { adminToken, clearCredentials, hasCredentials, idToken, logoutUrl, onCredentialsChange } from './tokens.js';

export interface Session {
  me: Me;
  /** Whether the person holds a permission (an admin token and a network admin hold them all). */
  can(permission: Permission | string): boolean;
  isNetworkAdmin: boolean;
  /** Forgets the tokens; after an OIDC sign-in also ends the server's sign-in session (/logout). */
  signOut(): void;
}

const SessionContext = createContext<Session | null>(null);

/** Whether the console holds a token, re-read whenever one is stored, refreshed away or cleared. */
export function useSignedIn(): boolean {
  return useSyncExternalStore(onCredentialsChange, hasCredentials);
}

export function SessionProvider({ me, children }: { me: Me; children: ReactNode }) {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();

  const signOut = useCallback(() => {
    const viaOidc = adminToken() === null;
    const hint = idToken();
    clearCredentials();
    queryClient.clear();
    if (viaOidc) window.location.assign(logoutUrl(hint));
    else navigate('/login');
  }, [queryClient, navigate]);

  const session = useMemo<Session>(() => {
    const isNetworkAdmin = me.kind === 'adminToken' || me.networkAdmin;
    return { me, isNetworkAdmin, can: (permission) => isNetworkAdmin || me.permissions.some((held) => held === permission), signOut };
  }, [me, signOut]);

  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

/** The signed-in person; only inside the signed-in part of the app (below SessionProvider). */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (session === null) throw new Error('useSession is used outside SessionProvider.');
  return session;
}
