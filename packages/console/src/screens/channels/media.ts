import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { authedFetch } from '../../api/client.js';
import { apiErrorOf } from '../../api/errors.js';

/**
 * Images and files of messages come from the admin API, which wants the bearer header an <img> cannot
 * send: they are fetched with it and shown through object URLs (the page's CSP allows `blob:` images).
 */
export async function fetchBlob(path: string): Promise<Blob> {
  const response = await authedFetch(new Request(`${window.location.origin}${path}`));
  if (!response.ok) {
    const body: unknown = await response.json().catch(() => null);
    throw apiErrorOf(response.status, body);
  }
  return response.blob();
}

export const imagePath = (messageId: string, size: 'small' | 'medium' | 'large' | 'full') =>
  `/api/v2/messages/${encodeURIComponent(messageId)}/images?size=${size}`;

export const filePath = (messageId: string) => `/api/v2/messages/${encodeURIComponent(messageId)}/files`;

/** An object URL of the blob at `path` while the component shows it; null until it is read. */
export function useBlobUrl(path: string | null): { url: string | null; error: unknown } {
  const blob = useQuery({
    queryKey: ['blob', path],
    queryFn: () => fetchBlob(path ?? ''),
    enabled: path !== null,
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: 5 * 60_000,
  });
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (!blob.data) return;
    const created = URL.createObjectURL(blob.data);
    setUrl(created);
    return () => {
      URL.revokeObjectURL(created);
      setUrl(null);
    };
  }, [blob.data]);
  return { url, error: blob.error };
}

/** Downloads the blob at `path` under `fileName`, as a link with `download` would. */
export async function download(path: string, fileName: string): Promise<void> {
  const blob = await fetchBlob(path);
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // The click has started the download by the next task; the URL is no longer needed after it.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
