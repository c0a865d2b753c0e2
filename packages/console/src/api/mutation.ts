import { type QueryClient, useMutation, useQueryClient } from '@tanstack/react-query';

/**
 * What a screen adds to one of its api.ts mutation hooks: its own reactions (clearing a form, closing a
 * dialog, a notice). They run before the hook brings the cached queries up to date, so the form reacts at
 * once while the mutation stays pending until the refetched lists show the change.
 */
export interface MutationConfig<Data, Variables> {
  onMutate?: (variables: Variables) => void;
  onSuccess?: (data: Data, variables: Variables) => void;
}

/**
 * A write of the admin API as the screens' api.ts files declare it: `mutationFn`, then the screen's
 * reactions, then `refresh` (the cache updates the write implies; awaited when it answers a promise).
 */
export function useApiMutation<Data, Variables = void>(
  mutationFn: (variables: Variables) => Promise<Data>,
  refresh: ((queryClient: QueryClient, data: Data, variables: Variables) => unknown) | null,
  config: MutationConfig<Data, Variables> = {},
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onMutate: config.onMutate,
    onSuccess: async (data: Data, variables: Variables) => {
      config.onSuccess?.(data, variables);
      await refresh?.(queryClient, data, variables);
    },
  });
}
