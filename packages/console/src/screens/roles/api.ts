import type { QueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client.js';
import { type MutationConfig, useApiMutation } from '../../api/mutation.js';
import { roleKeys } from '../../api/roles.js';

/** The Roles screen's reads and writes: the roles with the permission catalogue, each role's permissions. */

export { roleKeys, rolesQuery } from '../../api/roles.js';

const putRole = (publicId: string, permissions: string[]) => call(api.PUT('/api/v2/roles', { body: { publicIds: [publicId], permissions } }));
type PutAnswer = Awaited<ReturnType<typeof putRole>>;

const refreshRoles = (queryClient: QueryClient) => queryClient.invalidateQueries({ queryKey: roleKeys.all });

/** Saves a role's permissions: the whole set, in the catalogue's order. */
export const useSaveRole = (publicId: string) => useApiMutation((permissions: string[]) => putRole(publicId, permissions), refreshRoles);

/** Creates a role (by its name) that grants nothing yet. */
export const useCreateRole = (config: MutationConfig<PutAnswer, string> = {}) =>
  useApiMutation((publicId: string) => putRole(publicId, []), refreshRoles, config);

/** DELETE /api/v2/roles/{publicId}: refused (409, naming the holders) while a user or channel member holds the role. */
export const useDeleteRole = () =>
  useApiMutation((publicId: string) => call(api.DELETE('/api/v2/roles/{publicId}', { params: { path: { publicId } } })), refreshRoles);
