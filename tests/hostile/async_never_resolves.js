// hostile: an async setup() that awaits a promise that never settles
// expect: limit=time reason=time limit
async function setup() {
  createCanvas(600, 600, WEBGL);
  await new Promise(() => {});
}
function draw() { brush.circle(300, 300, 100); }
