function setup() {
  createCanvas(600, 600, WEBGL);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#f7f1e3");
  brush.noStroke();
  brush.fillTexture(0.6, 0.6);
  brush.fillBleed(0.2);
  brush.fill("#c2b8a3", 100);
  brush.beginShape(0.8);
  brush.vertex(80, 420); brush.vertex(520, 420); brush.vertex(460, 520); brush.vertex(140, 520);
  brush.endShape(true);
  const apples = [[220, 360, "#d62828"], [330, 370, "#f77f00"], [280, 300, "#9bb53c"], [400, 330, "#c1121f"]];
  for (const [x, y, c] of apples) {
    brush.fill(c, 150);
    brush.circle(x, y, 60, 0.3);
  }
  brush.set("pen", "#4a2c1a", 1.5);
  for (const [x, y] of apples) brush.line(x, y - 55, x + 6, y - 80);
}
