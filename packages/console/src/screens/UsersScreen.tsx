import { useParams } from 'wouter';
import { UserDetail } from './users/UserDetail.js';
import { UserList } from './users/UserList.js';

/** wouter decodes the path with decodeURI, which leaves %2F and the like: decode the rest, once. */
function paramOf(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** /users (the list) and /users/:userId (one user). */
export function UsersScreen() {
  const { userId } = useParams<{ userId?: string }>();
  return userId ? <UserDetail userId={paramOf(userId)} /> : <UserList />;
}
