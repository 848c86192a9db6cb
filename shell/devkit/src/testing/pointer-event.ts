// jsdom has no PointerEvent; Chakra's press handling (zag) constructs one when
// a pressed control loses focus, e.g. as a dialog closes. A MouseEvent with a
// pointerType is all it reads. Imported by test fixtures, so only the test
// files that import it get it (the remotes' fixtures do).
if (typeof window !== 'undefined' && typeof window.PointerEvent !== 'function') {
  class PointerEventPolyfill extends MouseEvent {
    readonly pointerId: number;
    readonly pointerType: string;
    constructor(type: string, init: PointerEventInit = {}) {
      super(type, init);
      this.pointerId = init.pointerId ?? 0;
      this.pointerType = init.pointerType ?? 'mouse';
    }
  }
  window.PointerEvent = PointerEventPolyfill as unknown as typeof PointerEvent;
}

export {};
