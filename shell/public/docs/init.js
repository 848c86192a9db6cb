// The REST reference generated from the protos (gen/openapi/paygate.swagger.json).
// Read-only: requests are made from the console, not from this page.
window.SwaggerUIBundle({
  url: './paygate.swagger.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  supportedSubmitMethods: [],
});
