import { createTheme } from '@mantine/core';

/** The console's Mantine theme: system fonts (the CSP allows no font CDN), a focus ring for keyboard users. */
export const theme = createTheme({
  primaryColor: 'indigo',
  focusRing: 'auto',
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  defaultRadius: 'md',
});
