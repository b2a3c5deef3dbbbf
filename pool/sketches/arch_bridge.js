async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  randomSeed(484);

  brush.noStroke();
  brush.fill("#d7e6ef", 80);
  brush.fillBleed(0.4);
  brush.fillTexture(0.5, 0.2);
  brush.rect(-10, -10, 620, 330);
  brush.fill("#7fa8b8", 100);
  brush.fillBleed(0.3);
  brush.rect(-10, 330, 620, 280);
  brush.fill("#a48f7a", 140);
  brush.fillBleed(0.08);
  brush.fillTexture(0.5, 0.6);
  brush.beginShape(0.05);
  brush.vertex(-10, 240); brush.vertex(610, 240); brush.vertex(610, 330); brush.vertex(500, 330);
  brush.vertex(460, 280); brush.vertex(400, 330); brush.vertex(330, 330); brush.vertex(300, 280);
  brush.vertex(270, 330); brush.vertex(200, 330); brush.vertex(140, 280); brush.vertex(100, 330); brush.vertex(-10, 330);
  brush.endShape(true);
  brush.fill("#6e6458", 60);
  brush.fillBleed(0.3);
  brush.rect(-10, 340, 620, 40);
  brush.set("HB", "#4e6e7e", 0.8);
  brush.field("waves");
  for (let i = 0; i < 14; i++) brush.flowLine(random(600), random(400, 580), random(60, 140), 0);
  brush.noField();
}
