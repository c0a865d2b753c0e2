import type { RolesTable } from '../../storage/schema.js';

/** A role as stored: its name (public id) and the JSON list of permissions it grants. */
export type RoleRow = RolesTable;
