import { Box, Flex, Heading, Stack, Text } from '@chakra-ui/react';
import type { ReactNode } from 'react';

/** PageFrameProps configure a PageFrame. */
export interface PageFrameProps {
  /** The page's heading; without it the frame has no title row (e.g. a "no permission" message). */
  title?: string;
  /** The page's actions, at the end of the title row (buttons, or a toolbar of them). */
  actions?: ReactNode;
  /**
   * A reading width for the content: forms and text read better narrow,
   * tables take the whole width (the default).
   */
  maxW?: 'md' | 'xl' | '3xl' | '5xl';
  children: ReactNode;
}

/**
 * PageFrame is the frame of every console screen: the same padding from the
 * sidebar and the window's edges, a title row with the page's actions, and
 * an optional reading width. Screens put their content in it and style no
 * page padding of their own.
 */
export function PageFrame({ title, actions, maxW, children }: PageFrameProps) {
  return (
    <Box p={6}>
      <Stack gap={5} maxW={maxW}>
        {(title || actions) && (
          <Flex justify="space-between" align="center" wrap="wrap" gap={3}>
            {title && (
              <Heading as="h2" size="xl">
                {title}
              </Heading>
            )}
            {actions}
          </Flex>
        )}
        {children}
      </Stack>
    </Box>
  );
}

/** NO_PERMISSION is what a screen says to a user who may not see it. */
export const NO_PERMISSION = "You don't have permission to view this page.";

/** NoPermission is the screen of a user who may not see the page they opened. */
export function NoPermission() {
  return (
    <PageFrame>
      <Text>{NO_PERMISSION}</Text>
    </PageFrame>
  );
}
