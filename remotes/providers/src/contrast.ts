/**
 * Style props for a solid badge or button whose text must stay readable (WCAG 2 AA, 4.5:1 for
 * normal text): Chakra's default solid fill for green and orange is the palette's 600 shade, on
 * which white text reaches only 3.3:1 and 3.6:1. The 700 shade gives white text 6.8:1 (green),
 * 7.9:1 (orange) and 8.4:1 (red), in light and dark mode alike (Chakra's dark mode would put
 * black text on it, hence the colour too). Use with a colorPalette and variant="solid".
 */
export const READABLE_SOLID = { bg: 'colorPalette.700', color: 'white' } as const;

/** READABLE_SOLID_BUTTON adds the hover and active fills of a solid button, one shade darker. */
export const READABLE_SOLID_BUTTON = {
  ...READABLE_SOLID,
  _hover: { bg: 'colorPalette.800' },
  _active: { bg: 'colorPalette.800' },
} as const;
