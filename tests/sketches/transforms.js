async function setup() {
  createCanvas(400, 300, WEBGL);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background(255);
  brush.set("HB", "#000000", 1);
  push();
  translate(100, 50);
  rotate(90);
  brush.line(0, 0, 10, 0);
  brush.rect(0, 0, 10, 20);
  pop();
  push();
  translate(200, 150);
  scale(2);
  brush.circle(10, 0, 5);
  brush.flowLine(0, 0, 10, 45);
  pop();
  brush.rect(5, 5, 10, 10);
}
