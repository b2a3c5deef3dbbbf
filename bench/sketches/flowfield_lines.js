function setup() {
  createCanvas(600, 600, WEBGL);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#f4f1de");
  brush.field("curved");
  const cols = ["#3d405b", "#e07a5f", "#81b29a"];
  for (let i = 0; i < 40; i++) {
    brush.set(i % 2 ? "2B" : "cpencil", cols[i % 3], 1.5);
    brush.flowLine(20 + (i % 8) * 70, 40 + Math.floor(i / 8) * 110, 250, 0);
  }
  brush.field("waves");
  brush.set("marker", "#f2cc8f", 3);
  for (let i = 0; i < 5; i++) brush.flowLine(30, 80 + i * 110, 500, 0);
  brush.noField();
}
