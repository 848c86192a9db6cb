import { Icon, type IconProps } from '@chakra-ui/react';

/**
 * KeyIcon is a key drawn as an SVG through Chakra's Icon (sized and coloured
 * like text; no icon or emoji font needed): a ring, a shaft and two bits.
 * Decorative: the button that holds it carries the name.
 */
export function KeyIcon(props: IconProps) {
  return (
    <Icon {...props}>
      <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
        <circle cx="7" cy="17" r="4" />
        <path d="M9.8 14.2 20 4" />
        <path d="m16.5 7.5 2.5 2.5" />
        <path d="m14 10 2 2" />
      </svg>
    </Icon>
  );
}
