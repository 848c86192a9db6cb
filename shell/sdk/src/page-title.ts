import { useEffect } from 'react';

/** The product name that prefixes every page title. */
export const PRODUCT_NAME = 'Paygate';

/** pageTitle builds 'Paygate - <page>'. */
export function pageTitle(page: string): string {
  return `${PRODUCT_NAME} - ${page}`;
}

/** usePageTitle sets the document title while the page is shown. */
export function usePageTitle(page: string): void {
  useEffect(() => {
    document.title = pageTitle(page);
  }, [page]);
}
