import { createToaster } from '@chakra-ui/react';

/** The one toaster of the console; the shell renders it, any remote may add to it. */
export const toaster = createToaster({ placement: 'top-end', pauseOnPageIdle: true, max: 5 });

/** Toast durations of the specs: errors 5 s, successes 3 s. */
export const TOAST_DURATION = { error: 5_000, success: 3_000, info: 3_000, warning: 5_000 } as const;

type Kind = keyof typeof TOAST_DURATION;

function show(type: Kind, title: string, description?: string, duration: number = TOAST_DURATION[type]): string {
  // An empty title, or an error's empty description, is a cancelled
  // confirmation or a change sent for approval (errorMessage answers ''):
  // say nothing ("Failed to update …" would be wrong).
  if (!title || (type === 'error' && description === '')) return '';
  // Identical toasts share an id, so a message raised twice at once shows once.
  const id = `${type}:${title}:${description ?? ''}`;
  return toaster.create({ id, type, title, description, duration, closable: true });
}

/** notify shows toasts of each severity. */
export const notify = {
  error: (title: string, description?: string, duration?: number) => show('error', title, description, duration),
  success: (title: string, description?: string, duration?: number) => show('success', title, description, duration),
  info: (title: string, description?: string, duration?: number) => show('info', title, description, duration),
  warning: (title: string, description?: string, duration?: number) => show('warning', title, description, duration),
};
