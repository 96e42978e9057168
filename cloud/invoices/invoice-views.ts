/**
 * The invoice with its hosted page, as every answer about one invoice carries it (create, read):
 * `checkout_url` is present when hosted checkout is enabled.
 */
export function withCheckoutUrl<Invoice extends { invoice_id: string }>(invoice: Invoice, checkoutUrl: (invoiceId: string) => string | null): Invoice & { checkout_url?: string } {
  const url = checkoutUrl(invoice.invoice_id);
  return url ? { ...invoice, checkout_url: url } : invoice;
}
