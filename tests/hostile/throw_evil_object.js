// hostile: throws an object whose toString/message getters never return (read when the error is reported)
// expect: limit=time|none reason=time limit|uncaught exception
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() {
  const bad = { get message() { for (;;) {} }, toString() { for (;;) {} } };
  throw bad;
}
