// no texture, strong border; then full texture, no border
function setup() {
  createCanvas(600, 600, WEBGL);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#f4f1de");
  brush.noStroke();
  brush.fill("#e07a5f", 180);
  brush.fillBleed(0.15);
  brush.fillTexture(0, 1);
  brush.beginShape(0.4);
  brush.vertex(60, 60); brush.vertex(280, 80); brush.vertex(260, 280); brush.vertex(80, 260);
  brush.endShape(true);
  brush.fill("#3d405b", 180);
  brush.fillTexture(1, 0);
  brush.beginShape(0.4);
  brush.vertex(320, 320); brush.vertex(540, 340); brush.vertex(520, 540); brush.vertex(340, 520);
  brush.endShape(true);
  brush.fill("#81b29a", 200);
  brush.fillTexture(0.5, 0.5, false);
  brush.circle(440, 150, 90);
}
