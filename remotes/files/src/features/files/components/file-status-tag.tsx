import { Badge } from '@chakra-ui/react';
import { fileStatus, TONE_PALETTE } from '../utils/file-status';

/** FileStatusTag shows a file's status in the colour of its tone (spec 02 §4). */
export function FileStatusTag({ status }: { status: number }) {
  const { label, tone } = fileStatus(status);
  return (
    <Badge colorPalette={TONE_PALETTE[tone]} data-testid="file-status" data-status-tone={tone}>
      {label}
    </Badge>
  );
}
