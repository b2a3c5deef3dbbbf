// strong bleed in both directions, with a direction angle
function setup() {
  createCanvas(600, 600, WEBGL);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fdf6e3");
  brush.noStroke();
  brush.fill("#6a4c93", 150);
  brush.fillBleed(0.6, "out");
  brush.fillTexture(0.6, 0.5);
  brush.circle(200, 220, 120);
  brush.fill("#1982c4", 140);
  brush.fillBleed(0.45, "in", 30);
  brush.beginShape(0.6);
  brush.vertex(320, 300); brush.vertex(540, 330); brush.vertex(520, 520); brush.vertex(330, 540); brush.vertex(300, 420);
  brush.endShape(true);
  brush.fill("#8ac926", 120);
  brush.fillBleed(0.3, "out", 120);
  brush.circle(150, 470, 80);
}
