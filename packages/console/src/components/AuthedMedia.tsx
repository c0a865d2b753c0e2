import { Anchor, Avatar, type AvatarProps, Image, Skeleton, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo } from 'react';
import { authedFetch, tokenFetch } from '../api/client.js';
import { serverUrl } from '../api/base.js';
import { apiErrorOf } from '../api/errors.js';

/** Bytes of a route that needs the bearer token (an <img> cannot send it), as a Blob. */
async function fetchBlob(path: string, viaAdminApi = true): Promise<Blob> {
  const url = /^https?:/.test(path) ? path : serverUrl(path);
  const response = await (viaAdminApi ? authedFetch : tokenFetch)(new Request(url));
  if (!response.ok) throw apiErrorOf(response.status, await response.json().catch(() => null));
  return response.blob();
}

function useObjectUrl(blob: Blob | undefined): string | null {
  const url = useMemo(() => (blob ? URL.createObjectURL(blob) : null), [blob]);
  useEffect(() => () => (url ? URL.revokeObjectURL(url) : undefined), [url]);
  return url;
}

/** An image served by the admin API (a message's image), fetched with the token and shown from a blob: URL. */
export function AuthedImage({ path, alt, maxHeight = 240 }: { path: string; alt: string; maxHeight?: number }) {
  const blob = useQuery({ queryKey: ['blob', path], queryFn: () => fetchBlob(path), staleTime: Number.POSITIVE_INFINITY });
  const url = useObjectUrl(blob.data);
  if (blob.isPending) return <Skeleton h={120} w={160} aria-label="Loading image" />;
  if (blob.error || url === null) {
    return (
      <Text size="sm" c="dimmed">
        The image could not be loaded.
      </Text>
    );
  }
  return <Image src={url} alt={alt} radius="sm" style={{ maxHeight, maxWidth: '100%', width: 'auto', alignSelf: 'flex-start' }} />;
}

/** A download link for a file served by the admin API: fetched with the token when clicked. */
export function AuthedDownload({ path, fileName, children }: { path: string; fileName: string; children: string }) {
  const download = async () => {
    const url = URL.createObjectURL(await fetchBlob(path));
    const anchor = document.createElement('a');
    anchor.href = url;
    anchor.download = fileName;
    anchor.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  };
  return (
    <Anchor component="button" type="button" onClick={() => void download()}>
      {children}
    </Anchor>
  );
}

/**
 * A user's avatar: /file/view wants a token, so it is fetched with the console's; without an image
 * (or when the server refuses the token) the initials of the name are shown.
 */
export function AuthedAvatar({ url, name, size }: { url: string | null; name: string; size?: AvatarProps['size'] }) {
  const blob = useQuery({
    queryKey: ['blob', url],
    queryFn: () => fetchBlob(url ?? '', false),
    enabled: url !== null,
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
  });
  const src = useObjectUrl(blob.data);
  return <Avatar src={src} alt="" name={name} color="initials" size={size} />;
}
