import { Box, Center, Flex, HStack, List, Stack, Text } from '@chakra-ui/react';
import { Pie } from '@nivo/pie';
import { percent, statusSlices, type StatusCounts, type StatusSlice } from '../utils/figures';

/** The doughnut's cutout (spec 01 §9). */
const CUTOUT = 0.75;
/** The doughnut's width and height in pixels: a fixed size, so it needs no measuring. */
const SIZE = 240;

function LegendEntry({ slice, total, note }: { slice: StatusSlice; total: number; note?: string }) {
  return (
    <List.Item>
      <HStack gap="2">
        <Box w="3" h="3" borderRadius="full" bg={slice.color} flexShrink={0} aria-hidden />
        <Text fontSize="sm">
          {slice.label}: {slice.value.toLocaleString('en-US')} ({percent(slice.value, total)})
          {note && (
            <Text as="span" color="fg.muted">
              {' '}
              {note}
            </Text>
          )}
        </Text>
      </HStack>
    </List.Item>
  );
}

/**
 * StatusChart is the doughnut of transaction status (spec 01 §2, §5): slices
 * under 3% of the total are not drawn and are listed in the legend; 'No
 * Data' when the total is 0. The legend lists every status with its count;
 * the drawing is one image named by a summary of the same figures.
 */
export function StatusChart({ counts }: { counts: StatusCounts }) {
  const slices = statusSlices(counts);
  const summary = slices.empty
    ? 'Transaction status: no data'
    : `Transaction status: ${[...slices.shown, ...slices.small].map((s) => `${s.label} ${s.value} (${percent(s.value, counts.total)})`).join(', ')}`;
  return (
    <Flex gap="4" direction={{ base: 'column', md: 'row' }} align="center">
      <Box role="img" aria-label={summary} h={`${SIZE}px`} w={`${SIZE}px`} flexShrink={0} position="relative">
        {slices.empty ? (
          <Center h="full" borderRadius="full" borderWidth="24px" borderColor="border.muted">
            <Text color="fg.muted">No Data</Text>
          </Center>
        ) : (
          <>
            <Pie
              width={SIZE}
              height={SIZE}
              // The box around it is the image and carries the name; nivo's own role="img" on the
              // SVG would be a second, unnamed image.
              role="presentation"
              data={slices.shown.map((s) => ({ id: s.id, label: s.label, value: s.value, color: s.color }))}
              innerRadius={CUTOUT}
              padAngle={0.7}
              cornerRadius={2}
              margin={{ top: 8, right: 8, bottom: 8, left: 8 }}
              colors={{ datum: 'data.color' }}
              enableArcLabels={false}
              enableArcLinkLabels={false}
              animate={false}
              valueFormat={(v) => `${v.toLocaleString('en-US')} (${percent(v, counts.total)})`}
            />
            <Center position="absolute" inset="0" pointerEvents="none" aria-hidden>
              <Stack gap="0" align="center">
                <Text fontSize="2xl" fontWeight="semibold">
                  {counts.total.toLocaleString('en-US')}
                </Text>
                <Text fontSize="xs" color="fg.muted">
                  transactions
                </Text>
              </Stack>
            </Center>
          </>
        )}
      </Box>
      {!slices.empty && (
        <Stack gap="2">
          <List.Root variant="plain" gap="1" aria-label="Status legend">
            {slices.shown.map((s) => (
              <LegendEntry key={s.id} slice={s} total={counts.total} />
            ))}
          </List.Root>
          {slices.small.length > 0 && (
            <Box>
              <Text fontSize="xs" color="fg.muted" mb="1">
                Under 3% (not drawn)
              </Text>
              <List.Root variant="plain" gap="1" aria-label="Statuses under 3%">
                {slices.small.map((s) => (
                  <LegendEntry key={s.id} slice={s} total={counts.total} />
                ))}
              </List.Root>
            </Box>
          )}
        </Stack>
      )}
    </Flex>
  );
}
