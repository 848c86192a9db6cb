import { createIcon } from '@chakra-ui/react';

/**
 * The show/hide toggle's icons, drawn as SVG through Chakra's icon component (hidden from screen
 * readers; the button keeps its aria-label). Emoji glyphs rendered as empty boxes where no emoji
 * font is installed (issue 25).
 */
const STROKE = { fill: 'none', stroke: 'currentColor', strokeWidth: '2', strokeLinecap: 'round', strokeLinejoin: 'round' } as const;
const EYE = 'M2 12s4-7 10-7 10 7 10 7-4 7-10 7S2 12 2 12z';

/** EyeIcon: the value is masked; pressing shows it. */
export const EyeIcon = createIcon({
  displayName: 'EyeIcon',
  defaultProps: STROKE,
  path: [<path key="lids" d={EYE} />, <circle key="pupil" cx="12" cy="12" r="3" />],
});

/** EyeOffIcon: the value is shown; pressing masks it. */
export const EyeOffIcon = createIcon({
  displayName: 'EyeOffIcon',
  defaultProps: STROKE,
  path: [<path key="lids" d={EYE} />, <circle key="pupil" cx="12" cy="12" r="3" />, <path key="slash" d="M4 4l16 16" />],
});
