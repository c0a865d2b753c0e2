import { queryOptions } from '@tanstack/react-query';
import { api, call } from './client.js';

/**
 * GET /api/v2/roles, read by the Roles screen and by a user's profile (the role names to pick from):
 * one key holds one shape, the roles and the permission catalogue, and each reader selects its part.
 */
export const roleKeys = { all: ['roles'] as const };

export const rolesQuery = () => queryOptions({ queryKey: roleKeys.all, queryFn: () => call(api.GET('/api/v2/roles')).then((answer) => answer.data) });
