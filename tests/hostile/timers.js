// hostile: schedules work with timers (runs after the sandbox would have returned)
// expect: limit=none reason=forbidden global setTimeout
function setup() { createCanvas(600, 600, WEBGL); angleMode(DEGREES); }
function draw() {
  setTimeout(() => { for (;;) {} }, 0);
  setInterval(() => brush.circle(1, 1, 1), 1);
  brush.circle(300, 300, 100);
}
