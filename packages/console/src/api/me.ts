import { queryOptions } from '@tanstack/react-query';
import { api, call } from './client.js';

/** GET /api/v2/me: who the console acts as and what they may do, which decides the screens it opens. */
export const meQuery = () => queryOptions({ queryKey: ['me'], queryFn: () => call(api.GET('/api/v2/me')), staleTime: 60_000 });
