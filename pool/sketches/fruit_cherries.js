async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  randomSeed(771);

  brush.noStroke();
  const pts = [[250, 380], [330, 400], [300, 330], [380, 350]];
  brush.fill("#5f7f3f", 120);
  brush.fillBleed(0.05);
  brush.fillTexture(0.3, 0.3);
  for (const p of pts) {
    brush.beginShape(0.6);
    brush.vertex(p[0], p[1] - 30); brush.vertex(315, 170); brush.vertex(320, 172); brush.vertex(p[0] + 5, p[1] - 30);
    brush.endShape(true);
  }
  brush.fill("#7da453", 100);
  brush.beginShape(0.8);
  brush.vertex(318, 172); brush.vertex(380, 130); brush.vertex(440, 150); brush.vertex(380, 175);
  brush.endShape(true);
  for (const p of pts) {
    brush.fill("#b3243a", 140);
    brush.fillBleed(0.2);
    brush.fillTexture(0.5, 0.6);
    brush.circle(p[0], p[1], 42, 0.2);
    brush.fill("#fbeff0", 150);
    brush.fillBleed(0.05);
    brush.circle(p[0] - 14, p[1] - 14, 7, 0.2);
  }
}
