// An ES module whose default export is a class (as es6-error's `es6/index.js`).
export default class ExtendableError extends Error {
  constructor(message) {
    super(message);
    this.name = 'ExtendableError';
  }
}
