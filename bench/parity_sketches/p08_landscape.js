// a published-style landscape: sky bands, sun, hills, lake, trees
function setup() {
  createCanvas(600, 600, WEBGL);
  angleMode(DEGREES);
  brush.scaleBrushes(1.5);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  brush.noStroke();
  brush.fill("#a8dadc", 110);
  brush.fillBleed(0.15);
  brush.fillTexture(0.4, 0.3);
  brush.beginShape(0.2);
  brush.vertex(0, 0); brush.vertex(600, 0); brush.vertex(600, 260); brush.vertex(0, 280);
  brush.endShape(true);
  brush.fill("#ffb703", 170);
  brush.fillBleed(0.25);
  brush.circle(430, 140, 60);
  brush.fill("#2a9d8f", 140);
  brush.fillBleed(0.1);
  brush.beginShape(0.7);
  brush.vertex(0, 330); brush.vertex(140, 250); brush.vertex(300, 320); brush.vertex(450, 240);
  brush.vertex(600, 310); brush.vertex(600, 420); brush.vertex(0, 420);
  brush.endShape(true);
  brush.fill("#457b9d", 130);
  brush.fillBleed(0.3, "in");
  brush.beginShape(0.5);
  brush.vertex(0, 420); brush.vertex(600, 420); brush.vertex(600, 600); brush.vertex(0, 600);
  brush.endShape(true);
  for (let i = 0; i < 4; i++) {
    brush.fill("#264653", 160);
    brush.fillBleed(0.08);
    brush.beginShape(0.3);
    const x = 70 + i * 60;
    brush.vertex(x, 250); brush.vertex(x + 25, 390); brush.vertex(x - 25, 390);
    brush.endShape(true);
  }
}
