import { Anchor, type CSSVariablesResolver, createTheme, darken, Loader, luminance, type MantineTheme, Modal } from '@mantine/core';

/** The shade of filled buttons and badges, and of coloured text before it is darkened to be readable. */
const FILLED_SHADE = 8;

/**
 * The console's Mantine theme: system fonts (the CSP allows no font CDN), a focus ring for keyboard
 * users, and what WCAG 2.2 AA asks of every screen: a link inside a sentence is underlined (not told
 * apart by colour alone), a dialog's close button and a loader have a name, and text reads at 4.5:1 at
 * least (see `cssVariablesResolver`).
 */
export const theme = createTheme({
  primaryColor: 'indigo',
  // Filled buttons and badges take their colour's shade 8, with white or black text, whichever reads at
  // 4.5:1: a background lighter than this luminance gets black text (4.6:1 at least), a darker one white.
  primaryShade: FILLED_SHADE,
  autoContrast: true,
  luminanceThreshold: 0.183,
  focusRing: 'auto',
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  defaultRadius: 'md',
  components: {
    Anchor: Anchor.extend({ defaultProps: { underline: 'always' } }),
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close dialog' } } }),
    Loader: Loader.extend({ defaultProps: { role: 'status' } }),
  },
});

/** WCAG 2.2 AA for text of any size, and a little over, for the rounding of blended colours. */
const READABLE = 4.6;

function contrast(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** `color`, darkened in small steps until it reads at 4.5:1 on each of `backgrounds`. */
function readableOn(color: string, backgrounds: readonly string[]): string {
  let shade = color;
  for (let amount = 0.05; amount < 1 && backgrounds.some((background) => contrast(shade, background) < READABLE); amount += 0.05) {
    shade = darken(color, amount);
  }
  return shade;
}

/**
 * Mantine's default greys and colours are too faint for text in places: dimmed text (gray.6 on white,
 * 3.3:1), the error colour (red.6, 3.3:1), a green or orange word, or a light badge's text on its tint
 * (green.9 on green.1, 3.8:1). Each is darkened until it reads at 4.5:1 on white, on the greys of
 * striped and hovered rows, and on its own colour's tints.
 */
export const cssVariablesResolver: CSSVariablesResolver = (resolved: MantineTheme) => {
  const white = resolved.white;
  // The page, striped rows, and hovered or selected rows.
  const greys = [white, resolved.colors.gray[0] ?? white, resolved.colors.gray[1] ?? white];
  const light: Record<string, string> = {
    '--mantine-color-dimmed': readableOn(resolved.colors.gray[6] ?? resolved.black, greys),
    '--mantine-color-error': readableOn(resolved.colors.red[6] ?? resolved.black, greys),
  };
  for (const [name, shades] of Object.entries(resolved.colors)) {
    const backgrounds = [...greys, shades[0] ?? white, shades[1] ?? white];
    const filled = shades[FILLED_SHADE] ?? resolved.black;
    light[`--mantine-color-${name}-text`] = readableOn(filled, backgrounds);
    light[`--mantine-color-${name}-outline`] = readableOn(filled, backgrounds);
    light[`--mantine-color-${name}-light-color`] = readableOn(shades[9] ?? resolved.black, backgrounds);
  }
  return { variables: {}, light, dark: {} };
};
