import { createIcon } from '@chakra-ui/react';

/**
 * The icons of a file row's buttons, drawn as SVG through Chakra's icon component (the console's
 * icons: they take the button's size and text colour, and are hidden from screen readers, so each
 * button keeps its aria-label). Emoji glyphs rendered as empty boxes where no emoji font is
 * installed (issue 25).
 */
const STROKE = { fill: 'none', stroke: 'currentColor', strokeWidth: '2', strokeLinecap: 'round', strokeLinejoin: 'round' } as const;

export const DownloadIcon = createIcon({
  displayName: 'DownloadIcon',
  defaultProps: STROKE,
  path: [<path key="stem" d="M12 4v11" />, <path key="head" d="M7 10l5 5 5-5" />, <path key="tray" d="M5 19h14" />],
});

export const InfoIcon = createIcon({
  displayName: 'InfoIcon',
  defaultProps: STROKE,
  path: [<circle key="ring" cx="12" cy="12" r="9" />, <path key="stem" d="M12 11v6" />, <path key="dot" d="M12 7.5v.01" />],
});

export const WarningIcon = createIcon({
  displayName: 'WarningIcon',
  defaultProps: STROKE,
  path: [<path key="sign" d="M12 3L2 20h20z" />, <path key="stem" d="M12 10v4" />, <path key="dot" d="M12 17v.01" />],
});

export const TrashIcon = createIcon({
  displayName: 'TrashIcon',
  defaultProps: STROKE,
  path: [
    <path key="lid" d="M4 7h16" />,
    <path key="handle" d="M9 7V4h6v3" />,
    <path key="can" d="M6 7l1 13h10l1-13" />,
    <path key="ribs" d="M10 11v6M14 11v6" />,
  ],
});
